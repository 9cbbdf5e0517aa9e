package inventory

import "testing"

func TestStatusTypo(t *testing.T) {
	it := Item{Quantity: 5}
	if it.Status("ten") != "ok" {
		t.Fatal("unexpected")
	}
}
