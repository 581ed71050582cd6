package auth

import "testing"

// TestFlowForEveryOAuthProvider: FlowFor lists the flows in one switch (D25.49: no init
// function registers them); every provider pi signs in to with an account has one, and no
// other provider does.
func TestFlowForEveryOAuthProvider(t *testing.T) {
	n := 0
	for _, p := range providers {
		got := FlowFor(p.ID)
		switch {
		case p.OAuthName != "" && got == nil:
			t.Errorf("%s signs in with an account (%q) but has no flow", p.ID, p.OAuthName)
		case p.OAuthName == "" && got != nil:
			t.Errorf("%s has a flow but no account sign-in", p.ID)
		}
		if got != nil {
			n++
		}
	}
	if n != 9 {
		t.Errorf("%d flows, want 9", n)
	}
	if FlowFor("no-such-provider") != nil {
		t.Error("a flow for an unknown provider")
	}
}
