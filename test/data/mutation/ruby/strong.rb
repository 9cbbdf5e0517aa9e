RSpec.describe Bookshelf::Catalog do
  def book(isbn, title, author, year, copies = 1)
    Bookshelf::Book.new(isbn: isbn, title: title, author: author, year: year, copies: copies)
  end

  let(:gems) { book('9780306406157', 'Ruby Gems', 'Ann Lee', 2001) }
  let(:far) { book('9781861972712', 'Go Far', 'Ruby Stone', 2010) }
  let(:rubric) { book('9780140449136', 'Rubrics Today', 'Cy Park', 2005) }
  let(:old_ruby) { book('9780262033848', 'Ruby Gems', 'Bo Dean', 1990, 0) }
  let(:catalog) { described_class.new([gems, far, rubric, old_ruby]) }

  it 'ranks title words over author words over title prefixes' do
    expect(catalog.search('ruby')).to eq([gems, old_ruby, far])
    expect(catalog.search('rubrics')).to eq([rubric])
  end

  it 'adds the scores of every query word' do
    expect(catalog.search('ruby gems')).to eq([gems, old_ruby, far])
    expect(catalog.search('stone ruby')).to eq([far, gems, old_ruby])
    expect(catalog.search('rub today')).to eq([rubric, gems, old_ruby])
  end

  it 'breaks ties by year, newest first, then by title' do
    a = book('1111111111111', 'Beta Tales', 'X', 2000)
    b = book('2222222222222', 'Alpha Tales', 'Y', 2000)
    c = book('3333333333333', 'Gamma Tales', 'Z', 2020)
    expect(described_class.new([a, b, c]).search('tales')).to eq([c, b, a])
  end

  it 'matches prefixes of title words only' do
    expect(catalog.search('rub')).to eq([rubric, gems, old_ruby])
    expect(catalog.search('sto')).to eq([])
  end

  it 'honours the limit' do
    expect(catalog.search('ruby', limit: 2)).to eq([gems, old_ruby])
    expect(catalog.search('ruby', limit: 1)).to eq([gems])
    expect(catalog.search('ruby', limit: 0)).to eq([])
    expect(catalog.search('ruby', limit: -1)).to eq([])
  end

  it 'skips unavailable books when asked' do
    expect(catalog.search('ruby', available_only: true)).to eq([gems, far])
  end

  it 'returns nothing for a query without words' do
    expect(catalog.search('')).to eq([])
    expect(catalog.search('?!')).to eq([])
    expect(catalog.search(nil)).to eq([])
  end

  it 'returns an exact ISBN match alone, with dashes and spaces ignored' do
    expect(catalog.search('978-0-306-40615-7')).to eq([gems])
    expect(catalog.search('978 1861972712')).to eq([far])
    expect(catalog.search('9780262033848')).to eq([old_ruby])
  end

  it 'ignores an exact ISBN match that is not available when only available books count' do
    expect(catalog.search('9780262033848', available_only: true)).to eq([])
    expect(catalog.search('9780306406157', available_only: true)).to eq([gems])
  end
end
