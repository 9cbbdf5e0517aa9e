require 'spec_helper'

RSpec.describe Hashie::Hash do
  describe '#to_hash' do
    it 'returns a plain Hash with the same keys and values' do
      hash = Hashie::Hash['a' => 1, :b => 2]

      result = hash.to_hash

      expect(result).to eq('a' => 1, :b => 2)
      expect(result).to be_an_instance_of(::Hash)
    end

    it 'stringifies the keys when asked to' do
      hash = Hashie::Hash[a: 1, b: 2]

      expect(hash.to_hash(stringify_keys: true)).to eq('a' => 1, 'b' => 2)
    end

    it 'symbolizes the keys when asked to' do
      hash = Hashie::Hash['a' => 1]

      expect(hash.to_hash(symbolize_keys: true)).to eq(a: 1)
    end
  end
end
