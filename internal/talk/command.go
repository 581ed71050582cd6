package talk

import "strings"

// Command runs one of the /talk* commands (commands/talk.cue) with its argument text and
// returns the text the seed shows. Flags: --all/-a (talk-dead), --name/-n <alias>
// (talk-group-join, talk-group-join-last).
func (c *Core) Command(name, args string) string {
	var pos []string
	all, alias := false, ""
	words := strings.Fields(args)
	for i := 0; i < len(words); i++ {
		switch w := words[i]; {
		case w == "--all" || w == "-a":
			all = true
		case (w == "--name" || w == "-n") && i+1 < len(words):
			alias = words[i+1]
			i++
		case strings.HasPrefix(w, "--name="):
			alias = strings.TrimPrefix(w, "--name=")
		default:
			pos = append(pos, w)
		}
	}
	arg := ""
	if len(pos) > 0 {
		arg = pos[0]
	}
	switch name {
	case "talk":
		return c.List("")
	case "talk-dead":
		if all && arg != "" {
			return "--all cannot be combined with an agent id.\nTry '/talk-dead --help' for usage."
		}
		if all {
			return c.MarkAllDead()
		}
		return c.MarkDead(arg)
	case "talk-group-join":
		// A group name is one word of letters, digits, '-' and '_': "my group" is refused
		// whole, never joined as "my".
		return c.GroupJoin(strings.Join(pos, " "), strings.TrimSpace(alias))
	case "talk-group-join-last":
		return c.GroupJoinLast(strings.TrimSpace(alias))
	case "talk-group-leave":
		return c.GroupLeave()
	case "talk-group-list":
		return c.GroupList()
	case "talk-group-del":
		return c.GroupDelete(strings.Join(pos, " "))
	case "talk-group-clear":
		return c.GroupClear()
	}
	return ""
}
