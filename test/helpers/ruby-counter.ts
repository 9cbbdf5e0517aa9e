/* Shared by test/unit/ruby-example-phase.test.ts and test/integration/ruby-example-phase.test.ts: a small Ruby class to cover. */

export const COUNTER = `class Counter
  def self.reset!
    @count = 0
    :ok
  end

  def self.bump(n)
    @count = (@count || 0) + n
    @count
  end

  def twice(x)
    y = x * 2
    y
  end

  def one; 1; end
end
`;
