package agent

// Dequeue takes back every queued steering and follow-up message (pi's Alt+Up puts them in
// the editor again) and returns their texts, steering first. Safe to call from any goroutine.
func (a *Agent) Dequeue() []string {
	a.mu.Lock()
	out := append(append([]string{}, a.steerTexts...), a.followTexts...)
	a.steerTexts, a.followTexts = nil, nil
	a.steering.msgs, a.followUp.msgs = nil, nil
	a.mu.Unlock()
	a.emitQueueUpdate()
	return out
}
