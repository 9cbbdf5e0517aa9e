RSpec.describe Bookshelf::Catalog do
  it 'finds nothing (wrongly expects a match)' do
    catalog = Bookshelf::Catalog.new([])
    expect(catalog.search('ruby').size).to eq(1)
  end
end
