RSpec.describe Bookshelf::Catalog do
  it 'starts empty' do
    expect(Bookshelf::Catalog.new([]).count).to eq(0)
  end
end
