@testset "histogram answers" begin
    h = MiniStats.histogram([1.0, 2.0, 3.0, 4.0], 2)
    @test h isa MiniStats.Histogram
end
