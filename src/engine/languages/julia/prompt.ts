import { systemPrompt, type LanguagePrompt } from '../../prompt/language-prompt';

/** Julia's prompt (the paper's Appendix K template), the adapter's `prompt`. */
export const juliaPrompt: LanguagePrompt = {
  fence: 'julia',
  fenceTags: new Set(['julia', 'jl']),
  wrapsMethodInClass: true,
  system: systemPrompt(
    'Julia',
    [
      'Use the standard `Test` library: group related checks in `@testset "description" begin ... end` blocks and check each with `@test`',
      'Use `@test_throws ExceptionType expression` for inputs that must raise an error',
      'Remember that Julia arrays are 1-based: the first element is `arr[1]` and the last is `arr[end]`',
      'Compare floating-point results with `≈` (`isapprox`) rather than `==`',
    ],
    'julia',
    [
      'using Test',
      '',
      '@testset "safe_divide" begin',
      '    @testset "divides evenly" begin',
      '        @test safe_divide(10, 2) == 5',
      '        @test safe_divide(1.0, 3.0) ≈ 0.3333333 atol=1e-6',
      '    end',
      '    @testset "errors" begin',
      '        @test_throws DivideError safe_divide(1, 0)',
      '    end',
      '    @testset "vectors" begin',
      '        v = safe_divide.([2, 4, 6], 2)',
      '        @test length(v) == 3',
      '        @test v[1] == 1 && v[end] == 3',
      '    end',
      'end',
    ].join('\n'),
  ),
  requirements: () => [
    'Give every `@testset` a descriptive name',
    'Test boundary values: empty and single-element inputs, the first and the last index',
    'Check sizes and positions with `length`, `arr[1]` and `arr[end]` (indexing starts at 1)',
  ],
};
