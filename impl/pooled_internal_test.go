package impl

import (
	"net/http/httptest"
	"testing"

	"github.com/switchboard/switchboard/gen/api"
)

// TestPickAnswerWritesAsGenerated: the pooled writer of /pick sends the bytes, status and headers the generated
// response type sends, answer after answer (a reused buffer carries nothing over).
func TestPickAnswerWritesAsGenerated(t *testing.T) {
	ms, score := 120.5, 87.47
	note := "a note with <html> & \"quotes\""
	answers := []api.GetPick200JSONResponse{
		{Pick: &api.PickEntry{ProviderId: "openai", Model: "gpt-x", Reason: "operational, 120 ms", ResponseTimeMs: &ms, Score: score},
			RunnersUp: []api.PickEntry{{ProviderId: "mistral", Model: "m-small", Reason: "degraded"}}, Note: &note},
		{RunnersUp: []api.PickEntry{}},
	}
	for i, a := range answers {
		want, got := httptest.NewRecorder(), httptest.NewRecorder()
		if err := a.VisitGetPickResponse(want); err != nil {
			t.Fatal(err)
		}
		if err := pickAnswer(a).VisitGetPickResponse(got); err != nil {
			t.Fatal(err)
		}
		if got.Code != want.Code || got.Body.String() != want.Body.String() || got.Header().Get("Content-Type") != want.Header().Get("Content-Type") {
			t.Errorf("answer %d: %d %q %v, generated %d %q %v", i, got.Code, got.Body.String(), got.Header(), want.Code, want.Body.String(), want.Header())
		}
	}
}
