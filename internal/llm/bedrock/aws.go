package bedrock

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// lookup reads a variable from the stored credential's env, then the process environment
// (pi's getProviderEnvValue).
func lookup(m *llm.Model, name string) string {
	if v := m.Env[name]; v != "" {
		return v
	}
	return os.Getenv(name)
}

func home() string {
	h, _ := os.UserHomeDir()
	return h
}

func expand(p string) string {
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home(), p[2:])
	}
	return p
}

// iniFile reads an AWS shared config or credentials file into sections of keys (names as
// written between the brackets, keys lower-cased). A missing file is empty.
func iniFile(path string) (map[string]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]string{}
	var cur map[string]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' && strings.HasSuffix(line, "]") {
			name := strings.TrimSpace(line[1 : len(line)-1])
			cur = out[name]
			if cur == nil {
				cur = map[string]string{}
				out[name] = cur
			}
			continue
		}
		if cur == nil {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		cur[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	return out, sc.Err()
}

func configPath(m *llm.Model) string {
	if p := lookup(m, "AWS_CONFIG_FILE"); p != "" {
		return expand(p)
	}
	return filepath.Join(home(), ".aws", "config")
}

func credentialsPath(m *llm.Model) string {
	if p := lookup(m, "AWS_SHARED_CREDENTIALS_FILE"); p != "" {
		return expand(p)
	}
	return filepath.Join(home(), ".aws", "credentials")
}

// profileSettings merges a profile's keys from the config file ([profile name], or [default])
// and the credentials file ([name]); the credentials file wins, as in the SDKs.
func profileSettings(m *llm.Model, profile string) (map[string]string, error) {
	cfg, err := iniFile(configPath(m))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", configPath(m), err)
	}
	creds, err := iniFile(credentialsPath(m))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", credentialsPath(m), err)
	}
	var out map[string]string
	add := func(sec map[string]string) {
		if sec == nil {
			return
		}
		if out == nil {
			out = map[string]string{}
		}
		for k, v := range sec {
			out[k] = v
		}
	}
	if profile == "default" {
		add(cfg["default"])
	}
	add(cfg["profile "+profile])
	add(creds[profile])
	return out, nil
}

// profileName is the profile the SDK's chain reads: the stored credential's AWS_PROFILE, else
// the environment's, else "default".
func profileName(m *llm.Model) string {
	if p := lookup(m, "AWS_PROFILE"); p != "" {
		return p
	}
	return "default"
}

// profileRegion is the profile's region from the shared config file ("" when none).
func profileRegion(m *llm.Model) string {
	s, _ := profileSettings(m, profileName(m))
	return s["region"]
}

// processCredentials runs a profile's credential_process (its JSON, Version 1).
func processCredentials(ctx context.Context, profile, command string) (Credentials, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sh", "-c", command).Output()
	if err != nil {
		return Credentials{}, fmt.Errorf("AWS profile %q: credential_process failed: %v", profile, err)
	}
	var v struct {
		Version         int
		AccessKeyID     string `json:"AccessKeyId"`
		SecretAccessKey string
		SessionToken    string
	}
	if err := json.Unmarshal(out, &v); err != nil || v.AccessKeyID == "" || v.SecretAccessKey == "" {
		return Credentials{}, fmt.Errorf("AWS profile %q: credential_process did not print credentials (JSON with Version 1, AccessKeyId and SecretAccessKey)", profile)
	}
	if v.Version != 1 {
		return Credentials{}, fmt.Errorf("AWS profile %q: credential_process printed Version %d; only Version 1 is known", profile, v.Version)
	}
	return Credentials{v.AccessKeyID, v.SecretAccessKey, v.SessionToken}, nil
}

// containerCredentials asks the ECS/EKS container credentials endpoint.
func containerCredentials(ctx context.Context, m *llm.Model, o *llm.Options) (Credentials, error) {
	c, _, err := containerExpiring(ctx, m, o)
	return c, err
}

func containerExpiring(ctx context.Context, m *llm.Model, o *llm.Options) (Credentials, time.Time, error) {
	u := lookup(m, "AWS_CONTAINER_CREDENTIALS_FULL_URI")
	if rel := lookup(m, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"); rel != "" {
		u = "http://169.254.170.2" + rel
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Credentials{}, time.Time{}, fmt.Errorf("AWS container credentials: %v", err)
	}
	token := lookup(m, "AWS_CONTAINER_AUTHORIZATION_TOKEN")
	if f := lookup(m, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return Credentials{}, time.Time{}, fmt.Errorf("AWS container credentials: %v", err)
		}
		token = strings.TrimSpace(string(b))
	}
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := llm.Client(o).Do(req.WithContext(ctx))
	if err != nil {
		return Credentials{}, time.Time{}, fmt.Errorf("AWS container credentials: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var v struct {
		AccessKeyID     string `json:"AccessKeyId"`
		SecretAccessKey string
		Token           string
		Expiration      string
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, &v) != nil || v.AccessKeyID == "" {
		return Credentials{}, time.Time{}, fmt.Errorf("AWS container credentials: the endpoint answered HTTP %d without credentials", resp.StatusCode)
	}
	exp, _ := time.Parse(time.RFC3339, v.Expiration)
	return Credentials{v.AccessKeyID, v.SecretAccessKey, v.Token}, exp, nil
}
