package inventory

import "testing"

// Every branch of Status, and both sides of each boundary.
func TestStatusBranches(t *testing.T) {
	cases := []struct {
		name  string
		item  Item
		today int
		want  string
	}{
		{"expires today", Item{Quantity: 5, Expires: 10}, 10, "expired"},
		{"expired yesterday", Item{Quantity: 5, Expires: 9}, 10, "expired"},
		{"expired and empty", Item{Quantity: 0, Expires: 9}, 10, "expired"},
		{"never expires, empty", Item{Quantity: 0}, 10, "out-of-stock"},
		{"negative stock", Item{Quantity: -2, Expires: 50}, 10, "out-of-stock"},
		{"one day left", Item{Quantity: 5, Expires: 11}, 10, "expiring"},
		{"three days left", Item{Quantity: 5, Expires: 13}, 10, "expiring"},
		{"four days left", Item{Quantity: 5, Expires: 14}, 10, "ok"},
		{"at the reorder level", Item{Quantity: 4, Reorder: 4}, 10, "reorder"},
		{"above the reorder level", Item{Quantity: 5, Reorder: 4}, 10, "ok"},
		{"one unit, no reorder level", Item{Quantity: 1}, 10, "ok"},
		{"exactly 90 percent full", Item{Quantity: 9, Capacity: 10}, 10, "nearly-full"},
		{"full", Item{Quantity: 10, Capacity: 10}, 10, "nearly-full"},
		{"80 percent full", Item{Quantity: 8, Capacity: 10}, 10, "ok"},
		{"just under 90 percent", Item{Quantity: 89, Capacity: 100}, 10, "ok"},
		{"unlimited shelf", Item{Quantity: 1000}, 10, "ok"},
	}
	for _, c := range cases {
		if got := c.item.Status(c.today); got != c.want {
			t.Errorf("%s: Status(%d) = %q, want %q", c.name, c.today, got, c.want)
		}
	}
}
