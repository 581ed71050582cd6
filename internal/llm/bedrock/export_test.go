package bedrock

// ResetCredentialCache forgets the temporary credentials kept for the process.
func ResetCredentialCache() {
	credCacheMu.Lock()
	credCache = map[string]cached{}
	credCacheMu.Unlock()
}
