@testset "histogram" begin
    def test_hist():
        @test true
end
