package x402

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard/switchboard/netguard"
)

// FacilitatorRequest is the body of POST /verify and POST /settle.
type FacilitatorRequest struct {
	X402Version         int            `json:"x402Version"`
	PaymentPayload      PaymentPayload `json:"paymentPayload"`
	PaymentRequirements Requirements   `json:"paymentRequirements"`
}

// VerifyResponse is the facilitator's answer to /verify.
type VerifyResponse struct {
	IsValid       *bool  `json:"isValid"`
	InvalidReason string `json:"invalidReason,omitempty"`
	Payer         string `json:"payer,omitempty"`
}

// SettleResponse is the facilitator's answer to /settle.
type SettleResponse struct {
	Success     *bool  `json:"success"`
	ErrorReason string `json:"errorReason,omitempty"`
	Transaction string `json:"transaction"`
	Network     string `json:"network"`
	Payer       string `json:"payer,omitempty"`
}

// ErrFacilitatorUnreachable means no connection to the facilitator could be made (DNS, refused, unroutable): the
// request never left this server, so the facilitator did nothing with it.
var ErrFacilitatorUnreachable = errors.New("facilitator unreachable")

// FacilitatorError is a facilitator call that reached the facilitator (or may have) but gave no usable answer:
// a timeout, an error status without a verdict, or a body that does not parse. What the facilitator did with the
// request is unknown.
type FacilitatorError struct {
	Op      string // verify or settle
	Status  int    // HTTP status, 0 when there was no answer
	Timeout bool
	Err     error
}

func (e *FacilitatorError) Error() string {
	switch {
	case e.Timeout:
		return fmt.Sprintf("facilitator %s: no answer in time: %v", e.Op, e.Err)
	case e.Status != 0:
		return fmt.Sprintf("facilitator %s: status %d: %v", e.Op, e.Status, e.Err)
	}
	return fmt.Sprintf("facilitator %s: %v", e.Op, e.Err)
}

func (e *FacilitatorError) Unwrap() error { return e.Err }

// maxFacilitatorBody bounds what is read of a facilitator's answer.
const maxFacilitatorBody = 64 << 10

// Facilitator is the client of an x402 facilitator's /verify and /settle.
type Facilitator struct {
	base    string
	client  *http.Client
	timeout time.Duration
}

// NewFacilitator returns a client of the facilitator at base (no trailing slash); every call is bounded by
// timeout. The client is guard's (package netguard): internal addresses only as guard allows, no proxy unless
// configured, and redirects are never followed: a payment is posted to the configured address only.
func NewFacilitator(base string, timeout time.Duration, guard netguard.Options) *Facilitator {
	guard.Timeout, guard.MaxRedirects = timeout, -1
	return &Facilitator{base: strings.TrimRight(base, "/"), timeout: timeout, client: netguard.NewClient(guard)}
}

// Verify asks whether the payment is valid and could be settled now (funds, nonce unused on chain). A verdict,
// valid or not, is a VerifyResponse; an error is ErrFacilitatorUnreachable or a *FacilitatorError.
func (f *Facilitator) Verify(ctx context.Context, req FacilitatorRequest) (VerifyResponse, error) {
	var vr VerifyResponse
	status, err := f.post(ctx, "verify", req, &vr)
	if err != nil {
		return VerifyResponse{}, err
	}
	if vr.IsValid == nil || (status >= 300 && *vr.IsValid) {
		// No verdict, or "valid" with an error status: not an answer to rely on.
		return VerifyResponse{}, &FacilitatorError{Op: "verify", Status: status, Err: errors.New("answer without a verdict")}
	}
	return vr, nil
}

// Settle asks the facilitator to execute the transfer. A verdict is a SettleResponse (Success false: not
// settled, by the facilitator's word); an error is ErrFacilitatorUnreachable (certainly not settled) or a
// *FacilitatorError (unknown).
func (f *Facilitator) Settle(ctx context.Context, req FacilitatorRequest) (SettleResponse, error) {
	var sr SettleResponse
	status, err := f.post(ctx, "settle", req, &sr)
	if err != nil {
		return SettleResponse{}, err
	}
	if sr.Success == nil || (status >= 300 && *sr.Success) || (*sr.Success && sr.Transaction == "") {
		return SettleResponse{}, &FacilitatorError{Op: "settle", Status: status, Err: errors.New("answer without a verdict or transaction")}
	}
	return sr, nil
}

// post sends body as JSON to {base}/{op} and decodes the answer into out. A 2xx or 4xx answer with a JSON body
// is decoded (facilitators put their verdict in 400 answers too); anything else is an error.
func (f *Facilitator) post(ctx context.Context, op string, body any, out any) (int, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, fmt.Errorf("encoding facilitator %s request: %w", op, err)
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.base+"/"+op, bytes.NewReader(b))
	if err != nil {
		return 0, fmt.Errorf("building facilitator %s request: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	res, err := f.client.Do(req)
	if err != nil {
		var op2 *net.OpError
		if _, blocked := netguard.IsBlocked(err); blocked || (errors.As(err, &op2) && op2.Op == "dial") {
			return 0, fmt.Errorf("%w: %s: %w", ErrFacilitatorUnreachable, op, err)
		}
		var ne net.Error
		timeout := errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
		return 0, &FacilitatorError{Op: op, Timeout: timeout, Err: err}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxFacilitatorBody+1))
	if err != nil {
		var ne net.Error
		timeout := errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
		return res.StatusCode, &FacilitatorError{Op: op, Status: res.StatusCode, Timeout: timeout, Err: fmt.Errorf("reading the answer: %w", err)}
	}
	if len(raw) > maxFacilitatorBody {
		return res.StatusCode, &FacilitatorError{Op: op, Status: res.StatusCode, Err: fmt.Errorf("answer larger than %d bytes", maxFacilitatorBody)}
	}
	if res.StatusCode < 200 || res.StatusCode >= 500 || (res.StatusCode >= 300 && res.StatusCode < 400) {
		return res.StatusCode, &FacilitatorError{Op: op, Status: res.StatusCode, Err: errors.New("unexpected status")}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return res.StatusCode, &FacilitatorError{Op: op, Status: res.StatusCode, Err: fmt.Errorf("decoding the answer: %w", err)}
	}
	return res.StatusCode, nil
}
