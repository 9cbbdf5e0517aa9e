package inventory

import "testing"

// Calls Status once and only checks that it answers something.
func TestStatusAnswers(t *testing.T) {
	if got := (Item{Quantity: 5}).Status(10); got == "" {
		t.Errorf("Status() returned nothing")
	}
}
