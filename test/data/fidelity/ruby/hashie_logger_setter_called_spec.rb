require 'spec_helper'

RSpec.describe Hashie do
  describe '.logger=' do
    around do |example|
      original = Hashie.logger
      example.run
      Hashie.logger = original
    end

    it 'replaces the logger Hashie reports to' do
      io = StringIO.new
      logger = Logger.new(io)

      Hashie.logger = logger

      expect(Hashie.logger).to be(logger)
    end
  end
end
