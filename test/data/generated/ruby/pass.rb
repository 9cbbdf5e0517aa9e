require 'rspec'

RSpec.describe Bookshelf::Catalog do
  let(:books) do
    [
      Bookshelf::Book.new(isbn: '9780306406157', title: 'Ruby Gems', author: 'Ann Lee', year: 2001, copies: 1),
      Bookshelf::Book.new(isbn: '9781861972712', title: 'Go Far', author: 'Ruby Stone', year: 2010, copies: 1)
    ]
  end
  subject(:catalog) { described_class.new(books) }

  it 'ranks a title match above an author match' do
    expect(catalog.search('ruby').map(&:title)).to eq(['Ruby Gems', 'Go Far'])
  end

  it 'returns nothing for an empty query' do
    expect(catalog.search('')).to eq([])
  end
end
