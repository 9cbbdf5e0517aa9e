require 'spec_helper'

RSpec.describe Hashie::Hash do
  describe '#to_hash' do
    it 'converts nested arrays of hashes' do
      hash = Hashie::Hash['list' => [Hashie::Hash['x' => 1], 2]]

      expect(hash.to_hash(symbolize_keys: true)).to eq(list: [{ x: 1 }, 2])
    end
  end
end
