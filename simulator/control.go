package simulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// MaxControlBody is the largest accepted control request body (64 KiB).
const MaxControlBody = 64 << 10

// scenarioBody is a PUT body: absent fields keep their defaults, present ones are checked as given.
type scenarioBody struct {
	Status  *string `json:"status"`
	DelayMS *int    `json:"delay_ms"`
	Fail    *string `json:"fail"`
}

// scenariosResponse is the answer of GET and DELETE /_control.
type scenariosResponse struct {
	Providers map[string]Scenario `json:"providers"`
}

func (s *Simulator) serveControl(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/_control")
	if rest == "" || rest == "/" {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			writeJSON(w, http.StatusOK, scenariosResponse{Providers: s.Scenarios()})
		case http.MethodDelete:
			s.Reset()
			writeJSON(w, http.StatusOK, scenariosResponse{Providers: s.Scenarios()})
		default:
			w.Header().Set("Allow", "GET, HEAD, DELETE")
			writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed on /_control: use GET or DELETE")
		}
		return
	}
	id := strings.TrimPrefix(rest, "/")
	if strings.Contains(id, "/") {
		writeError(w, http.StatusNotFound, "no control endpoint at "+r.URL.Path)
		return
	}
	if _, ok := s.byID[id]; !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("provider %q: unknown provider", id))
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		sc, _ := s.Scenario(id)
		writeJSON(w, http.StatusOK, sc)
	case http.MethodPut:
		s.putScenario(w, r, id)
	case http.MethodDelete:
		if err := s.Set(id, DefaultScenario()); err != nil {
			writeError(w, http.StatusInternalServerError, "resetting the scenario failed")
			return
		}
		sc, _ := s.Scenario(id)
		writeJSON(w, http.StatusOK, sc)
	default:
		w.Header().Set("Allow", "GET, HEAD, PUT, DELETE")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed on /_control/"+id+": use GET, PUT or DELETE")
	}
}

// putScenario decodes, checks and stores a scenario, and answers the provider's new scenario.
func (s *Simulator) putScenario(w http.ResponseWriter, r *http.Request, id string) {
	sc, code, err := decodeScenario(w, r)
	if err != nil {
		writeError(w, code, err.Error())
		return
	}
	if err := s.Set(id, sc); err != nil {
		var fe *FieldError
		switch {
		case errors.As(err, &fe):
			writeError(w, http.StatusBadRequest, fe.Error())
		case errors.Is(err, ErrUnknownProvider):
			writeError(w, http.StatusNotFound, fmt.Sprintf("provider %q: unknown provider", id))
		default:
			writeError(w, http.StatusInternalServerError, "setting the scenario failed")
		}
		return
	}
	sc, _ = s.Scenario(id)
	writeJSON(w, http.StatusOK, sc)
}

// decodeScenario reads a PUT body into a checked Scenario, with the HTTP status to answer when it is not one.
func decodeScenario(w http.ResponseWriter, r *http.Request) (Scenario, int, error) {
	if r.ContentLength > MaxControlBody {
		return Scenario{}, http.StatusRequestEntityTooLarge, fmt.Errorf("body: larger than %d bytes", MaxControlBody)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxControlBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return Scenario{}, http.StatusRequestEntityTooLarge, fmt.Errorf("body: larger than %d bytes", MaxControlBody)
		}
		return Scenario{}, http.StatusBadRequest, fmt.Errorf("body: reading failed")
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return Scenario{}, http.StatusBadRequest, errors.New("body: a scenario object is required")
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	var in scenarioBody
	if err := dec.Decode(&in); err != nil {
		return Scenario{}, http.StatusBadRequest, jsonError(err)
	}
	if dec.More() {
		return Scenario{}, http.StatusBadRequest, errors.New("body: unexpected data after the scenario object")
	}
	sc := DefaultScenario()
	if in.Status != nil {
		sc.Status = *in.Status
	}
	if in.DelayMS != nil {
		sc.DelayMS = *in.DelayMS
	}
	if in.Fail != nil {
		sc.Fail = *in.Fail
	}
	if err := sc.Validate(); err != nil {
		return Scenario{}, http.StatusBadRequest, err
	}
	return sc, http.StatusOK, nil
}

// jsonError names what is wrong with a body that does not decode.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field == "delay_ms":
		return &FieldError{Field: "delay_ms", Msg: "must be an integer number of milliseconds"}
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return &FieldError{Field: typeErr.Field, Msg: "must be a string"}
	case errors.As(err, &typeErr):
		return errors.New("body: must be a JSON object")
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("body: not valid JSON")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("body: unknown field %s (known: status, delay_ms, fail)", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return errors.New("body: not a scenario object")
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"encoding the answer failed"}`)
	}
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}
