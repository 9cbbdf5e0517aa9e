require 'spec_helper'

RSpec.describe TTY::Color::Support, '#disabled?' do
  it 'is disabled when NO_COLOR is set, even to an empty string' do
    support = described_class.new({ 'NO_COLOR' => '' })

    expect(support.disabled?).to eq(true)
  end
end
