@testset "histogram wrong" begin
    @test MiniStats.histogram([1.0, 2.0, 3.0, 4.0], 2).counts == [1, 3]
end
