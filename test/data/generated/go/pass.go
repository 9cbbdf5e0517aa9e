package inventory

import "testing"

func TestStatus(t *testing.T) {
	cases := []struct {
		name string
		item Item
		want string
	}{
		{"expired", Item{Quantity: 5, Expires: 10}, "expired"},
		{"out of stock", Item{Quantity: 0}, "out-of-stock"},
		{"ok", Item{Quantity: 5}, "ok"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.item.Status(10); got != c.want {
				t.Errorf("Status() = %q, want %q", got, c.want)
			}
		})
	}
}
