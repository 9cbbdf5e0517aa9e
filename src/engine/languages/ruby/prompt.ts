import { systemPrompt, type LanguagePrompt } from '../../prompt/language-prompt';

/** Ruby's prompt (the paper's Appendix K template), the adapter's `prompt`. */
export const rubyPrompt: LanguagePrompt = {
  fence: 'ruby',
  fenceTags: new Set(['ruby', 'rb']),
  wrapsMethodInClass: true,
  system: systemPrompt(
    'Ruby',
    [
      'Use RSpec: `describe` the class or method under test, group situations with `context`, and write one `it` per behaviour',
      'State expectations with `expect(actual).to eq(expected)`, and errors with `expect { ... }.to raise_error(ErrorClass)`',
      'Set up shared objects with `let` and `before`',
    ],
    'ruby',
    [
      "require 'rspec'",
      '',
      'RSpec.describe Calculator do',
      '  let(:calculator) { Calculator.new }',
      '',
      "  describe '#divide' do",
      "    context 'with a non-zero divisor' do",
      "      it 'returns the quotient' do",
      '        expect(calculator.divide(10, 2)).to eq(5)',
      '      end',
      '    end',
      '',
      "    context 'with a zero divisor' do",
      "      it 'raises ZeroDivisionError' do",
      '        expect { calculator.divide(1, 0) }.to raise_error(ZeroDivisionError)',
      '      end',
      '    end',
      '  end',
      'end',
    ].join('\n'),
  ),
  requirements: () => [
    "Start the file with `require 'rspec'`",
    'Organise the examples with `describe`, `context` and `it` blocks',
    'Test both the success path and the failure path (invalid input, raised errors, nil results)',
  ],
};
