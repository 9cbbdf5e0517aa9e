require 'spec_helper'

RSpec.describe Hashie::Rash do
  include_context 'with a logger'

  subject(:rash) do
    described_class.new(
      /hello/ => 'hello',
      /world/ => 'world',
      'other' => 'whee',
      1..5 => 'one to five'
    )
  end

  describe '#all' do
    it 'yields every value whose regexp key matches a string' do
      expect(rash.all('hello world').to_a).to match_array(%w[hello world])
    end

    it 'finds the value of a range key for a number' do
      expect(rash.all(3).to_a).to eq(['one to five'])
    end

    it 'returns an exact key before trying the patterns' do
      expect(rash.all('other').to_a).to eq(['whee'])
      expect(logger_output).to be_empty
    end
  end
end
