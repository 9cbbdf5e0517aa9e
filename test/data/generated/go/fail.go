package inventory

import "testing"

func TestStatusWrong(t *testing.T) {
	it := Item{Quantity: 5}
	if got := it.Status(10); got != "expired" {
		t.Errorf("Status() = %q, want %q", got, "expired")
	}
}
