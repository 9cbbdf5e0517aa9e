require 'spec_helper'

RSpec.describe Hashie::Rash do
  describe '#all' do
    it 'lists the matches for a query' do
      rash = Hashie::Rash.new(/a/ => 1, /b/ => 2)

      expect(rash.all_matches('ab')).to eq([1, 2])
    end
  end
end
