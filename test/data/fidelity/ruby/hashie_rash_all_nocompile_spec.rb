require 'spec_helper'

RSpec.describe Hashie::Rash do
  describe '#all' do
    it 'matches regexp keys' do
      rash = Hashie::Rash.new(/a/ => 1)
      expect(rash.all('abc').to_a).to eq([1])
  end
end
