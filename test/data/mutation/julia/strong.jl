@testset "histogram bins and counts" begin
    h = MiniStats.histogram([1.0, 2.0, 3.0, 4.0], 2)
    @test h.edges == [1.0, 2.5, 4.0]
    @test h.counts == [2, 2]
    @test eltype(h.edges) == Float64

    h = MiniStats.histogram([0, 10], 5)
    @test h.edges == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    @test h.counts == [1, 0, 0, 0, 1]

    h = MiniStats.histogram([1, 2, 3, 4, 5, 6], 3)
    @test h.edges ≈ [1.0, 8 / 3, 13 / 3, 6.0]
    @test h.edges[end] === 6.0
    @test h.counts == [2, 2, 2]

    h = MiniStats.histogram([1.0, 2.0, 3.0], 1)
    @test h.edges == [1.0, 3.0]
    @test h.counts == [3]
end

@testset "histogram of equal values" begin
    h = MiniStats.histogram([3.0, 3.0, 3.0], 4)
    @test h.edges == [3.0, 3.0]
    @test h.counts == [3]
end

@testset "histogram rejects bad input" begin
    @test_throws ArgumentError("nbin must be positive, got 0") MiniStats.histogram([1.0], 0)
    @test_throws ArgumentError("nbin must be positive, got -1") MiniStats.histogram([1.0], -1)
    @test_throws ArgumentError("cannot build a histogram of an empty collection") MiniStats.histogram(Float64[], 2)
end
