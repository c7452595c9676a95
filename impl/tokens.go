package impl

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/tokens"
)

// EstimateTokens estimates a text's token count for one provider's tokenizer, or for every tokenizer.
func (s *Server) EstimateTokens(_ context.Context, req api.EstimateTokensRequestObject) (api.EstimateTokensResponseObject, error) {
	if req.Body == nil {
		return api.EstimateTokens400JSONResponse{BadRequestJSONResponse: badRequest("body: is required")}, nil
	}
	b := req.Body
	est, err := tokens.NewEstimator(b.Text)
	var input *errs.InputError
	if errors.As(err, &input) {
		return api.EstimateTokens400JSONResponse{BadRequestJSONResponse: badRequest(input.Error())}, nil
	}
	if err != nil {
		return nil, err
	}
	in := est.Input()
	size := api.TokenEstimateInput{CharCount: in.Chars, WordCount: in.Words}
	var out api.TokenEstimateResponse
	if b.Provider != nil {
		if !s.deps.Providers.Known(*b.Provider) {
			return api.EstimateTokens404JSONResponse{NotFoundJSONResponse: notFound(fmt.Sprintf("body field provider: unknown provider %q", *b.Provider))}, nil
		}
		e, err := est.Estimate(tokens.TokenizerFor(*b.Provider, orDefault(b.Model, "")))
		if err != nil {
			return nil, err
		}
		err = out.FromTokenEstimateSingleResponse(api.TokenEstimateSingleResponse{Input: size, Estimate: api.TokenEstimateSingle{
			ProviderId: *b.Provider, Tokenizer: e.Tokenizer.Name, EstimatedTokens: e.Tokens,
			Confidence: api.TokenEstimateSingleConfidence(e.Confidence), TokenRange: api.TokenEstimateRange{Low: e.Low, High: e.High},
		}})
		if err != nil {
			return nil, fmt.Errorf("encoding the token estimate: %w", err)
		}
		return api.EstimateTokens200JSONResponse(out), nil
	}
	all, err := est.All()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(s.deps.Providers.All()))
	for _, p := range s.deps.Providers.All() {
		ids = append(ids, p.ID)
	}
	body := api.TokenEstimateAllResponse{Input: size, Estimates: make([]api.TokenEstimateTokenizerRecord, len(all))}
	for i, e := range all {
		body.Estimates[i] = api.TokenEstimateTokenizerRecord{
			Tokenizer: e.Tokenizer.Name, EstimatedTokens: e.Tokens, Providers: tokens.Providers(e.Tokenizer.Name, ids),
		}
	}
	sum := tokens.Summarize(all)
	body.Summary = api.TokenEstimateSummary{MinTokens: sum.Min, MaxTokens: sum.Max, AvgTokens: sum.Avg}
	if err := out.FromTokenEstimateAllResponse(body); err != nil {
		return nil, fmt.Errorf("encoding the token estimates: %w", err)
	}
	return api.EstimateTokens200JSONResponse(out), nil
}
