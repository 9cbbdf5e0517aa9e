require 'spec_helper'

RSpec.describe TTY::Color::Support, '#support?' do
  before do
    allow(TTY::Color).to receive(:tty?).and_return(true)
  end

  it 'is true for a color TERM on a tty' do
    support = described_class.new({ 'TERM' => 'xterm' })

    expect(support.support?).to eq(true)
  end

  it 'is false when NO_COLOR disables it' do
    support = described_class.new({ 'TERM' => 'xterm', 'NO_COLOR' => '1' })

    expect(support.support?).to eq(false)
  end
end
