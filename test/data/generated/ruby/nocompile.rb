RSpec.describe Bookshelf::Catalog do
  it 'never closes its block' do
    catalog = Bookshelf::Catalog.new([])
    expect(catalog.search('x')).to eq([])
end
