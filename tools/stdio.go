package tools

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Handler answers one JSON-RPC payload (a message or a batch) with its encoded answer, or nil when there is
// nothing to answer. *Bridge is one (the service in process); *Proxy another (a running service over HTTP).
type Handler interface {
	Handle(ctx context.Context, payload []byte) []byte
}

// Defaults of StdioOptions.
const (
	DefaultMaxLine     = 1 << 20 // as the HTTP endpoint's body limit
	DefaultConcurrency = 8
)

// StdioOptions adjust ServeStdio.
type StdioOptions struct {
	Logger *slog.Logger
	// MaxLine bounds one message (one line); a longer line is answered with an invalid request error and
	// skipped. DefaultMaxLine when zero.
	MaxLine int
	// Concurrency is how many messages are answered at once (a slow tool call does not hold up a ping);
	// DefaultConcurrency when zero.
	Concurrency int
}

// ServeStdio speaks MCP's stdio transport: one JSON-RPC message (or batch) per line on in, one answer per
// line on out, in the order they are ready (JSON-RPC matches them by id). Nothing else is written to out: logs
// go to the logger. It returns nil when in ends (the client closed it), once the answers in flight are
// written, or when ctx ends.
func ServeStdio(ctx context.Context, in io.Reader, out io.Writer, h Handler, o StdioOptions) error {
	log := cmp.Or(o.Logger, slog.Default())
	maxLine := cmp.Or(o.MaxLine, DefaultMaxLine)
	slots := make(chan struct{}, cmp.Or(o.Concurrency, DefaultConcurrency))
	var mu sync.Mutex
	var writeErr error
	write := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		if writeErr != nil {
			return
		}
		if _, err := out.Write(append(b, '\n')); err != nil {
			writeErr = fmt.Errorf("writing to stdout: %w", err)
		}
	}
	var wg sync.WaitGroup
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		// The read cannot be interrupted; when ctx ends first this goroutine stays blocked until in is closed,
		// which ends the process anyway.
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := readLine(r, maxLine)
			if tooLong {
				log.Warn("mcp stdio: a message longer than the limit was skipped", "limit", maxLine)
				write(tooLongAnswer(maxLine))
			} else if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				close(lines)
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return nil
		case line, ok := <-lines:
			if !ok {
				wg.Wait()
				if err := <-readErr; !errors.Is(err, io.EOF) {
					return fmt.Errorf("reading stdin: %w", err)
				}
				return writeErr
			}
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				if answer := h.Handle(ctx, line); answer != nil {
					write(answer)
				}
			}()
		}
	}
}

// readLine reads one line of at most max bytes (without its newline). A longer line is consumed to its end
// and reported as tooLong.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > max+1 { // +1: the newline
			tooLong = true
			buf = nil
		} else if !tooLong {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), tooLong, err
	}
}

func tooLongAnswer(max int) []byte {
	b, _ := encode(response{JSONRPC: "2.0", ID: nullID, Error: errorf(CodeInvalidRequest, "invalid request: a message is at most %d bytes", max)})
	return b
}

// Proxy forwards JSON-RPC payloads to a running service's MCP endpoint over HTTP (`switchboard mcp --url`).
type Proxy struct {
	endpoint string
	client   *http.Client
	log      *slog.Logger
	version  atomic.Pointer[string] // negotiated by initialize, repeated in MCP-Protocol-Version
}

// DefaultProxyTimeout bounds one forwarded payload: longer than the service's own tool call bound.
const DefaultProxyTimeout = 60 * time.Second

// maxProxyAnswer bounds the answer read from the service.
const maxProxyAnswer = 64 << 20

// NewProxy forwards to endpoint, the MCP endpoint's URL. A nil client gets one with DefaultProxyTimeout.
func NewProxy(endpoint string, client *http.Client, log *slog.Logger) *Proxy {
	if client == nil {
		client = &http.Client{Timeout: DefaultProxyTimeout}
	}
	return &Proxy{endpoint: endpoint, client: client, log: cmp.Or(log, slog.Default())}
}

// Handle sends payload to the service and returns its answer on one line. Failures on the way (the service
// unreachable, an HTTP error) become JSON-RPC errors for each request of the payload, so the client is never
// left waiting.
func (p *Proxy) Handle(ctx context.Context, payload []byte) []byte {
	ids := requestIDs(payload)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(payload))
	if err != nil {
		return p.fail(ids, CodeInternalError, "internal error: "+err.Error())
	}
	req.Header.Set("Content-Type", "application/json")
	// MCP's streamable HTTP transport wants both; the service answers JSON.
	req.Header.Set("Accept", "application/json, text/event-stream")
	if v := p.version.Load(); v != nil {
		req.Header.Set("MCP-Protocol-Version", *v)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		p.log.Error("mcp proxy: the service did not answer", "url", p.endpoint, "error", err)
		return p.fail(ids, CodeServerError, fmt.Sprintf("the service at %s did not answer: %v", p.endpoint, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProxyAnswer+1))
	if err != nil || len(body) > maxProxyAnswer {
		return p.fail(ids, CodeServerError, fmt.Sprintf("the answer of the service at %s could not be read", p.endpoint))
	}
	if resp.StatusCode == http.StatusAccepted {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/event-stream" {
		body = sseMessages(body)
	}
	var compact bytes.Buffer
	if mt != "application/json" && mt != "text/event-stream" || json.Compact(&compact, body) != nil {
		p.log.Error("mcp proxy: the service's answer is not JSON", "url", p.endpoint, "status", resp.StatusCode, "content_type", resp.Header.Get("Content-Type"))
		return p.fail(ids, CodeServerError, fmt.Sprintf("the service at %s answered HTTP %d without JSON-RPC", p.endpoint, resp.StatusCode))
	}
	if resp.StatusCode >= 400 {
		// The service answers HTTP refusals with a JSON-RPC error of id null: give it the request's id so the
		// client can match it.
		var e struct {
			Error *rpcError `json:"error"`
		}
		if json.Unmarshal(compact.Bytes(), &e) != nil || e.Error == nil {
			return p.fail(ids, CodeServerError, fmt.Sprintf("the service at %s answered HTTP %d", p.endpoint, resp.StatusCode))
		}
		return p.fail(ids, e.Error.Code, e.Error.Message)
	}
	p.remember(compact.Bytes())
	return compact.Bytes()
}

// remember keeps the protocol version an initialize answer negotiated.
func (p *Proxy) remember(answer []byte) {
	var one struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(answer, &one) == nil && one.Result.ProtocolVersion != "" {
		v := one.Result.ProtocolVersion
		p.version.Store(&v)
	}
}

// fail answers each request id of the payload with one error; nothing when the payload held no request.
func (p *Proxy) fail(ids []json.RawMessage, code int, msg string) []byte {
	if len(ids) == 0 {
		return nil
	}
	out := make([]response, len(ids))
	for i, id := range ids {
		out[i] = response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg}}
	}
	if len(out) == 1 {
		b, _ := encode(out[0])
		return b
	}
	b, _ := encode(out)
	return b
}

// requestIDs are the ids of the requests (not notifications) in a payload; null for one that cannot be read.
func requestIDs(payload []byte) []json.RawMessage {
	var items []json.RawMessage
	if firstByte(payload) == '[' {
		if json.Unmarshal(payload, &items) != nil {
			return []json.RawMessage{nullID}
		}
	} else {
		items = []json.RawMessage{payload}
	}
	var ids []json.RawMessage
	for _, it := range items {
		var m map[string]json.RawMessage
		if json.Unmarshal(it, &m) != nil {
			ids = append(ids, nullID)
			continue
		}
		if id, ok := m["id"]; ok {
			if _, isRequest := m["method"]; isRequest {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// sseMessages turns a server-sent event stream into the JSON-RPC answers it carries: one message as it is,
// several as a batch array (this service answers JSON, so this only matters behind another server).
func sseMessages(stream []byte) []byte {
	var msgs [][]byte
	var data []string
	flush := func() {
		if len(data) > 0 {
			msgs = append(msgs, []byte(strings.Join(data, "\n")))
			data = nil
		}
	}
	for _, line := range strings.Split(string(stream), "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	if len(msgs) == 1 {
		return msgs[0]
	}
	return append(append([]byte("["), bytes.Join(msgs, []byte(","))...), ']')
}

// CodeServerError is JSON-RPC's implementation-defined server error: the service could not be reached or
// refused the request for a reason of its own state.
const CodeServerError = -32000
