require 'spec_helper'

RSpec.describe Hashie do
  describe '.logger=' do
    include_context 'with a logger'

    it 'writes messages to the configured logger' do
      Hashie.logger.info('hello from the spec')

      expect(logger_output).to include('hello from the spec')
    end
  end
end
