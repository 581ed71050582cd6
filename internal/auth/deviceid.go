package auth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/jsonedit"
	"github.com/pigo-agent/pigo/internal/lazy"
)

// The installation's device id: a UUID kept as "deviceId" in the agent dir's global
// settings.json (pi 1.6's field, created on first use and shared with pi), which a sign-in may
// send to name this installation (OpenAI's agent host id).

type agentDirKey struct{}

// withAgentDir tells a sign-in flow which agent dir it signs in for.
func withAgentDir(ctx context.Context, dir string) context.Context {
	return context.WithValue(ctx, agentDirKey{}, dir)
}

var uuidPattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
}}

// deviceID returns the agent dir's device id, writing a new random one into settings.json
// (under pigo's edit lock, keeping the rest of the file as it is) when there is none.
func deviceID(ctx context.Context) (string, error) {
	dir, _ := ctx.Value(agentDirKey{}).(string)
	if dir == "" {
		return "", errors.New("no agent directory to keep this installation's device id in")
	}
	path := filepath.Join(dir, "settings.json")
	unlock, err := jsonedit.Lock(path, 10*time.Second)
	if err != nil {
		return "", err
	}
	defer unlock()
	data, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("cannot read %s: %v", path, unwrapPathError(err))
	}
	if exists && len(strings.TrimSpace(string(data))) > 0 {
		// settings.json may carry comments (pigo reads it as JSONC).
		v, found, err := jsonedit.Get(data, jsonedit.Path{jsonedit.Key("deviceId")})
		if err != nil {
			return "", fmt.Errorf("%s: %v", path, err)
		}
		var id string
		if found && json.Unmarshal(v, &id) == nil && id != "" {
			return id, nil
		}
	}
	id := newUUID()
	var out []byte
	if !exists || len(strings.TrimSpace(string(data))) == 0 {
		out = []byte("{\n  \"deviceId\": \"" + id + "\"\n}")
	} else {
		v, _ := json.Marshal(id)
		if out, err = jsonedit.Set(data, jsonedit.Path{jsonedit.Key("deviceId")}, v); err != nil {
			return "", fmt.Errorf("%s: %v", path, err)
		}
	}
	var expect []byte
	if exists {
		expect = data
	}
	if err := jsonedit.WriteFileAtomic(path, out, expect); err != nil {
		return "", err
	}
	return id, nil
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
