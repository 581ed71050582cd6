package toolkit

// maxLineDiffEdits bounds the line diff's search: past this many added plus removed lines the
// diff is taken from the common head and tail and udiff instead (still a correct diff, its
// alignment of ambiguous lines may differ from pi's). jsdiff has no bound; pigo keeps a whole
// rewrite of a large file from costing O(lines × edits) time and memory.
const maxLineDiffEdits = 1024

// LineDiff is the line diff pi's edit details are made of (jsdiff's diffLines, which pi's
// generateDiffString and generateUnifiedPatch call): lines keep their "\n" ("\r\n" stays in
// the line), and the shortest edit script is searched with jsdiff's Myers variant and its
// tie-breaks — prefer removing a line when both moves reach as far — so that where several
// minimal diffs exist pigo picks the one pi picks.
func LineDiff(old, new string) []patchPart {
	o, n := splitKeepNL(old), splitKeepNL(new)
	if parts, ok := myersLines(o, n, maxLineDiffEdits); ok {
		return parts
	}
	return patchParts(old, lineEdits(old, new))
}

// lineComp is one run of the edit script, linked back to the run before it.
type lineComp struct {
	count          int
	added, removed bool
	prev           *lineComp
}

type linePath struct {
	oldPos int
	last   *lineComp
}

func myersLines(o, n []string, budget int) ([]patchPart, bool) {
	oldLen, newLen := len(o), len(n)
	maxEdit := min(oldLen+newLen, budget)
	// extract follows the diagonal while the lines agree.
	extract := func(p *linePath, diag int) int {
		oldPos := p.oldPos
		newPos := oldPos - diag
		common := 0
		for newPos+1 < newLen && oldPos+1 < oldLen && o[oldPos+1] == n[newPos+1] {
			newPos++
			oldPos++
			common++
		}
		if common > 0 {
			p.last = &lineComp{count: common, prev: p.last}
		}
		p.oldPos = oldPos
		return newPos
	}
	step := func(p *linePath, added, removed bool, oldInc int) *linePath {
		last := p.last
		if last != nil && last.added == added && last.removed == removed {
			return &linePath{oldPos: p.oldPos + oldInc, last: &lineComp{count: last.count + 1, added: added, removed: removed, prev: last.prev}}
		}
		return &linePath{oldPos: p.oldPos + oldInc, last: &lineComp{count: 1, added: added, removed: removed, prev: last}}
	}
	off := maxEdit + 1
	best := make([]*linePath, 2*off+1)
	best[off] = &linePath{oldPos: -1}
	newPos := extract(best[off], 0)
	if best[off].oldPos+1 >= oldLen && newPos+1 >= newLen {
		return buildLineParts(best[off].last, o, n), true
	}
	minDiag, maxDiag := -maxEdit-1, maxEdit+1
	for editLen := 1; editLen <= maxEdit; editLen++ {
		for diag := max(minDiag, -editLen); diag <= min(maxDiag, editLen); diag += 2 {
			removePath, addPath := best[off+diag-1], best[off+diag+1]
			if removePath != nil {
				best[off+diag-1] = nil
			}
			canAdd := false
			if addPath != nil {
				addNewPos := addPath.oldPos - diag
				canAdd = 0 <= addNewPos && addNewPos < newLen
			}
			canRemove := removePath != nil && removePath.oldPos+1 < oldLen
			if !canAdd && !canRemove {
				best[off+diag] = nil
				continue
			}
			var base *linePath
			if !canRemove || (canAdd && removePath.oldPos < addPath.oldPos) {
				base = step(addPath, true, false, 0)
			} else {
				base = step(removePath, false, true, 1)
			}
			newPos = extract(base, diag)
			if base.oldPos+1 >= oldLen && newPos+1 >= newLen {
				return buildLineParts(base.last, o, n), true
			}
			best[off+diag] = base
			if base.oldPos+1 >= oldLen {
				maxDiag = min(maxDiag, diag-1)
			}
			if newPos+1 >= newLen {
				minDiag = max(minDiag, diag+1)
			}
		}
	}
	return nil, false
}

// buildLineParts turns the linked runs into parts with their lines (jsdiff's buildValues).
func buildLineParts(last *lineComp, o, n []string) []patchPart {
	var comps []*lineComp
	for c := last; c != nil; c = c.prev {
		comps = append(comps, c)
	}
	parts := make([]patchPart, 0, len(comps))
	oldPos, newPos := 0, 0
	for i := len(comps) - 1; i >= 0; i-- {
		c := comps[i]
		switch {
		case c.removed:
			parts = append(parts, patchPart{lines: o[oldPos : oldPos+c.count], removed: true})
			oldPos += c.count
		case c.added:
			parts = append(parts, patchPart{lines: n[newPos : newPos+c.count], added: true})
			newPos += c.count
		default:
			parts = append(parts, patchPart{lines: n[newPos : newPos+c.count]})
			newPos += c.count
			oldPos += c.count
		}
	}
	return parts
}
