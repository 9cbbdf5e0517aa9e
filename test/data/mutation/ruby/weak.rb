RSpec.describe Bookshelf::Catalog do
  it 'answers a search' do
    catalog = described_class.new([Bookshelf::Book.new(isbn: '9780306406157', title: 'Ruby Gems', author: 'Ann Lee', year: 2001, copies: 1)])
    expect(catalog.search('ruby')).to be_a(Array)
  end
end
