package llm

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

var (
	registryMu sync.RWMutex
	registry   = map[string]Provider{}
)

// Register makes a provider available under its models.json api value. The wire packages
// register themselves; import internal/llm/providers to link all of them.
func Register(api string, p Provider) {
	registryMu.Lock()
	registry[api] = p
	registryMu.Unlock()
}

// ProviderFor returns the provider for a models.json api value.
func ProviderFor(api string) (Provider, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	if p, ok := registry[api]; ok {
		return authed{p}, nil
	}
	known := make([]string, 0, len(registry))
	for k := range registry {
		known = append(known, k)
	}
	sort.Strings(known)
	return nil, fmt.Errorf("unsupported api %q (pigo speaks %s)", api, strings.Join(known, ", "))
}

// APIs lists the registered api values, sorted.
func APIs() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]string, 0, len(registry))
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Wrapped is the provider ProviderFor returns for a registered client p (tests compare them).
func Wrapped(p Provider) Provider { return authed{p} }
