require 'spec_helper'

RSpec.describe TTY::Color::Support, '#support?' do
  it 'reads NO_COLOR from the environment it was given' do
    support = described_class.new({ 'NO_COLOR' => '1' })

    expect(support.disabled?).to eq(true)
  end
end
