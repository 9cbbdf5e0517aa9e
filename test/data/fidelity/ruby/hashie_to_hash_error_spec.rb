require 'spec_helper'

RSpec.describe Hashie::Hash do
  describe '#to_hash' do
    it 'stringifies keys with the option flag' do
      hash = Hashie::Hash[a: 1]

      expect(hash.to_hash(:stringify_keys)).to eq('a' => 1)
    end
  end
end
