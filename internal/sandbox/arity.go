package sandbox

import (
	"strings"
	"sync"
)

// bashArity is the reference BashArity table: a command prefix (one or two tokens) and how
// many leading tokens identify the command. Kept as data; see [Suggest].
var bashArity = sync.OnceValue(func() map[string]int {
	bashArity := map[string]int{}
	for _, n := range strings.Fields(`cat cd chmod chown cp echo env export grep kill killall ln ls mkdir
		mv ps pwd rm rmdir sleep source tail touch unset which`) {
		bashArity[n] = 1
	}
	for _, n := range strings.Fields(`bazel brew bun cargo cdk cf cmake composer consul crictl deno
		docker eksctl firebase flyctl git go gradle helm heroku hugo ip kind kubectl kustomize make mc
		minikube mongosh mysql mvn ng npm nvm nx openssl pip pipenv pnpm poetry podman psql pulumi
		pyenv python rake rbenv redis-cli rustup serverless skaffold sls sst swift systemctl terraform
		tmux turbo ufw vault vercel volta wp yarn`) {
		bashArity[n] = 2
	}
	for _, n := range strings.Fields(`aws az doctl gcloud gh sfdx`) {
		bashArity[n] = 3
	}
	for _, group := range []struct{ cmd, subs string }{
		{"bun", "run x"}, {"cargo", "add run"}, {"consul", "kv"}, {"deno", "task"},
		{"docker", "builder compose container image network volume"}, {"eksctl", "create"},
		{"git", "config remote stash"}, {"ip", "addr link netns route"}, {"kind", "create"},
		{"kubectl", "kustomize rollout"}, {"mc", "admin"}, {"npm", "exec init run view"},
		{"openssl", "req x509"}, {"pnpm", "dlx exec run"}, {"podman", "container image"},
		{"pulumi", "stack"}, {"terraform", "workspace"}, {"vault", "auth kv"}, {"yarn", "dlx run"},
	} {
		for _, sub := range strings.Fields(group.subs) {
			bashArity[group.cmd+" "+sub] = 3
		}
	}
	return bashArity
})

// Suggest returns the "allow forever" pattern for a command given as its tokens (the name
// and its raw arguments): the longest token prefix found in the BashArity table with arity N
// gives the first N tokens followed by " *" (all tokens when there are fewer); a name not in
// the table gives "name *"; no tokens give "*".
func Suggest(tokens []string) string {
	if len(tokens) == 0 {
		return "*"
	}
	n := 1
	for k := len(tokens); k >= 1; k-- {
		if a, ok := bashArity()[strings.Join(tokens[:k], " ")]; ok {
			n = a
			break
		}
	}
	if n > len(tokens) {
		n = len(tokens)
	}
	return strings.Join(tokens[:n], " ") + " *"
}
