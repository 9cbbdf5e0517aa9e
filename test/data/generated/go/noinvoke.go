package inventory

import "testing"

func TestItemFields(t *testing.T) {
	it := Item{SKU: "a", Quantity: 2}
	if it.Quantity != 2 {
		t.Fatal("quantity")
	}
}
