package llm

// SetFastPaths turns the recorded JSON forms of texts (JSString) and the copying of raw JSON
// already in JSON.stringify's form on or off, for tests that compare bodies written both
// ways.
func SetFastPaths(on bool) {
	quotedOff, stringifiedOff = !on, !on
}

// IsStringified is isStringified, for the external tests.
var IsStringified = isStringified

// SetParallelMin sets the size from which a memo's array is written on several cores, and
// returns the old one.
func SetParallelMin(n int) int {
	old := parallelMin
	parallelMin = n
	return old
}
