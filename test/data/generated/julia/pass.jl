@testset "histogram" begin
    h = MiniStats.histogram([1.0, 2.0, 3.0, 4.0], 2)
    @test h.counts == [2, 2]
    @test_throws ArgumentError MiniStats.histogram(Float64[], 2)
end
