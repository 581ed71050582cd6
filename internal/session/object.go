package session

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// object is a JSON object with its keys in file order, for the version migrations: pi mutates
// the parsed objects in place, so new keys go last and existing keys keep their place.
type object []field

type field struct {
	key string
	val json.RawMessage
}

func parseObject(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not an object")
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(k, v)
	}
	return o, nil
}

func (o object) get(k string) json.RawMessage {
	for _, f := range o {
		if f.key == k {
			return f.val
		}
	}
	return nil
}

// set replaces k's value where it is (JavaScript keeps a key's place), or appends it.
func (o *object) set(k string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == k {
			(*o)[i].val = v
			return
		}
	}
	*o = append(*o, field{k, v})
}

func (o *object) del(k string) {
	for i := range *o {
		if (*o)[i].key == k {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

func (o object) bytes() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		var c bytes.Buffer
		if json.Compact(&c, f.val) == nil {
			b.Write(c.Bytes())
		} else {
			b.Write(f.val)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// migrate brings raw lines (header first) to version 3 as pi's migrateToCurrentVersion does.
// It returns false when the lines were already current.
func migrate(lines [][]byte, newID func(map[string]bool) string) (bool, error) {
	var head struct {
		Version *float64 `json:"version"`
	}
	if json.Unmarshal(lines[0], &head) == nil && head.Version != nil && *head.Version >= Version {
		return false, nil
	}
	objs := make([]object, len(lines))
	for i, l := range lines {
		o, err := parseObject(l)
		if err != nil {
			return false, err
		}
		objs[i] = o
	}
	version := 1
	var hv float64
	if v := objs[0].get("version"); v != nil && json.Unmarshal(v, &hv) == nil {
		version = int(hv)
	}
	if version >= Version {
		return false, nil
	}
	typeOf := func(o object) string {
		var s string
		json.Unmarshal(o.get("type"), &s)
		return s
	}
	if version < 2 {
		ids := map[string]bool{}
		prev := json.RawMessage("null")
		for i := range objs {
			o := &objs[i]
			if typeOf(*o) == TypeSession {
				o.set("version", json.RawMessage("2"))
				continue
			}
			id := newID(ids)
			ids[id] = true
			idJSON, _ := marshal(id)
			o.set("id", idJSON)
			o.set("parentId", prev)
			prev = idJSON
			if typeOf(*o) == TypeCompaction {
				var idx float64
				if raw := o.get("firstKeptEntryIndex"); raw != nil && json.Unmarshal(raw, &idx) == nil {
					n := int(idx)
					if float64(n) == idx && n >= 0 && n < len(objs) && typeOf(objs[n]) != TypeSession {
						if tid := objs[n].get("id"); tid != nil {
							o.set("firstKeptEntryId", tid)
						}
					}
					o.del("firstKeptEntryIndex")
				}
			}
		}
	}
	for i := range objs {
		o := &objs[i]
		if typeOf(*o) == TypeSession {
			o.set("version", json.RawMessage("3"))
			continue
		}
		if typeOf(*o) == TypeMessage {
			if msg, err := parseObject(o.get("message")); err == nil {
				var role string
				json.Unmarshal(msg.get("role"), &role)
				if role == "hookMessage" {
					msg.set("role", json.RawMessage(`"custom"`))
					o.set("message", msg.bytes())
				}
			}
		}
	}
	for i := range objs {
		lines[i] = objs[i].bytes()
	}
	return true, nil
}
