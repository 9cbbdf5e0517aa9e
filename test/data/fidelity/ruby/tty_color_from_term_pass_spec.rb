require 'spec_helper'

RSpec.describe TTY::Color::Support, '#from_term' do
  it 'detects color support from a 256-color TERM' do
    support = described_class.new({ 'TERM' => 'xterm-256color' })

    expect(support.from_term).to eq(true)
  end

  it 'reports no color for a dumb terminal' do
    support = described_class.new({ 'TERM' => 'dumb' })

    expect(support.from_term).to eq(false)
  end
end
