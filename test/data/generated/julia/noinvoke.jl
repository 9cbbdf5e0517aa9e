@testset "arithmetic" begin
    @test 1 + 1 == 2
end
