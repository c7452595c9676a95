package impl

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/server"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/trust"
)

func (s *Server) verifyURL(id string) string { return s.deps.BaseURL + "/api/v1/validate/" + id }

// CreateAttestation records that a provider and model produced an output, keeping only its SHA-256.
func (s *Server) CreateAttestation(ctx context.Context, req api.CreateAttestationRequestObject) (api.CreateAttestationResponseObject, error) {
	b := req.Body
	rec, err := s.trust.Attest(ctx, trust.AttestInput{
		Provider: b.Provider, Model: b.Model, Output: b.Output, PayloadHash: b.PayloadHash, AgentID: b.AgentId,
		Creator: server.ClientKey(ctx),
	})
	var inErr *errs.InputError
	var unknown *errs.UnknownProviderError
	var quota *trust.QuotaError
	switch {
	case errors.As(err, &quota):
		return api.CreateAttestation429JSONResponse{TooManyRequestsJSONResponse: quotaAnswer(quota)}, nil
	case errors.As(err, &inErr):
		return api.CreateAttestation400JSONResponse{BadRequestJSONResponse: api.BadRequestJSONResponse{Error: inErr.Msg}}, nil
	case errors.As(err, &unknown):
		return api.CreateAttestation404JSONResponse{NotFoundJSONResponse: api.NotFoundJSONResponse{Error: "body field provider: " + unknown.Error()}}, nil
	case err != nil:
		return nil, err
	}
	return api.CreateAttestation200JSONResponse{
		AttestationId: rec.ID, VerifyUrl: s.verifyURL(rec.ID), PayloadHash: *rec.PayloadHash,
		CreatedAt: rec.CreatedAt, AgentIdVerified: false,
	}, nil
}

// CreateHandoff records that one agent passed a task to another, keeping only the context's SHA-256.
func (s *Server) CreateHandoff(ctx context.Context, req api.CreateHandoffRequestObject) (api.CreateHandoffResponseObject, error) {
	b := req.Body
	rec, err := s.trust.Handoff(ctx, trust.HandoffInput{FromAgent: b.FromAgent, ToAgent: b.ToAgent, TaskID: b.TaskId, Context: b.Context,
		Creator: server.ClientKey(ctx)})
	var inErr *errs.InputError
	var quota *trust.QuotaError
	switch {
	case errors.As(err, &quota):
		return api.CreateHandoff429JSONResponse{TooManyRequestsJSONResponse: quotaAnswer(quota)}, nil
	case errors.As(err, &inErr):
		return api.CreateHandoff400JSONResponse{BadRequestJSONResponse: api.BadRequestJSONResponse{Error: inErr.Msg}}, nil
	case err != nil:
		return nil, err
	}
	return api.CreateHandoff200JSONResponse{
		HandoffId: rec.ID, VerifyUrl: s.verifyURL(rec.ID), ContextHash: rec.ContextHash, CreatedAt: rec.CreatedAt,
	}, nil
}

// quotaAnswer is the 429 of a client over its creation quota; it may retry once its oldest record of the window
// has aged out, within the window at the latest (an hour is a fair first wait).
func quotaAnswer(q *trust.QuotaError) api.TooManyRequestsJSONResponse {
	wait := int(min(q.Window, time.Hour).Seconds())
	return api.TooManyRequestsJSONResponse{Body: api.Error{Error: q.Error()}, Headers: api.TooManyRequestsResponseHeaders{RetryAfter: &wait}}
}

// GetValidation reads a trust record back and, when asked, checks a text or hash against it.
func (s *Server) GetValidation(ctx context.Context, req api.GetValidationRequestObject) (api.GetValidationResponseObject, error) {
	candidate, err := trust.Candidate(req.Params.Output, req.Params.Hash)
	var inErr *errs.InputError
	if errors.As(err, &inErr) {
		return api.GetValidation400JSONResponse{BadRequestJSONResponse: api.BadRequestJSONResponse{Error: inErr.Msg}}, nil
	}
	rec, err := s.trust.Get(ctx, req.Id)
	if errors.Is(err, store.ErrNotFound) {
		return api.GetValidation404JSONResponse{NotFoundJSONResponse: api.NotFoundJSONResponse{Error: "no attestation or handoff with this id"}}, nil
	}
	if err != nil {
		return nil, err
	}
	out := api.GetValidation200JSONResponse{
		Id: rec.ID, Type: api.ValidationRecordType(rec.Kind), Valid: true, CreatedAt: rec.CreatedAt, Match: trust.Matches(rec, candidate),
		Provider: rec.ProviderID, Model: rec.Model, PayloadHash: rec.PayloadHash, AgentId: rec.AgentID,
		FromAgent: rec.FromAgent, ToAgent: rec.ToAgent, TaskId: rec.TaskID, ContextHash: rec.ContextHash,
		AgentIdsVerified: false,
	}
	return out, nil
}
