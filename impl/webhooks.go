package impl

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/webhooks"
)

// webhookURL is both the verify_url (GET) and the manage_url (DELETE) of a subscription.
func (s *Server) webhookURL(id string) string { return s.deps.BaseURL + "/api/v1/webhooks?id=" + id }

const noSuchWebhook = "parameter id: no webhook subscription with this id"

// CreateWebhook subscribes a callback URL to status events.
func (s *Server) CreateWebhook(ctx context.Context, req api.CreateWebhookRequestObject) (api.CreateWebhookResponseObject, error) {
	b := req.Body
	events := make([]string, len(b.Events))
	for i, e := range b.Events {
		events[i] = string(e)
	}
	sub, err := s.webhooks.Create(ctx, webhooks.CreateInput{
		CallbackURL: b.CallbackUrl, Events: events, Providers: b.Providers, Secret: b.Secret,
		ExpiresInHours: b.ExpiresInHours, Metadata: b.Metadata,
	})
	var inErr *errs.InputError
	var unknown *errs.UnknownProviderError
	switch {
	case errors.As(err, &inErr):
		return api.CreateWebhook400JSONResponse{BadRequestJSONResponse: api.BadRequestJSONResponse{Error: inErr.Msg}}, nil
	case errors.As(err, &unknown):
		return api.CreateWebhook404JSONResponse{NotFoundJSONResponse: api.NotFoundJSONResponse{Error: "body field providers: " + unknown.Error()}}, nil
	case err != nil:
		return nil, err
	}
	out, err := webhookSubscription(sub)
	if err != nil {
		return nil, err
	}
	u := s.webhookURL(sub.ID)
	return api.CreateWebhook200JSONResponse{Subscription: out, VerifyUrl: u, ManageUrl: u}, nil
}

// GetWebhook reads a subscription and its delivery statistics (never its secret).
func (s *Server) GetWebhook(ctx context.Context, req api.GetWebhookRequestObject) (api.GetWebhookResponseObject, error) {
	sub, err := s.webhooks.Get(ctx, req.Params.Id.String())
	if errors.Is(err, webhooks.ErrNotFound) {
		return api.GetWebhook404JSONResponse{NotFoundJSONResponse: api.NotFoundJSONResponse{Error: noSuchWebhook}}, nil
	}
	if err != nil {
		return nil, err
	}
	out, err := webhookSubscription(sub)
	if err != nil {
		return nil, err
	}
	return api.GetWebhook200JSONResponse{Subscription: out}, nil
}

// DeleteWebhook unsubscribes: the subscription is deactivated and its pending deliveries cancelled.
func (s *Server) DeleteWebhook(ctx context.Context, req api.DeleteWebhookRequestObject) (api.DeleteWebhookResponseObject, error) {
	sub, err := s.webhooks.Unsubscribe(ctx, req.Params.Id.String())
	if errors.Is(err, webhooks.ErrNotFound) {
		return api.DeleteWebhook404JSONResponse{NotFoundJSONResponse: api.NotFoundJSONResponse{Error: noSuchWebhook}}, nil
	}
	if err != nil {
		return nil, err
	}
	id, err := uuid.Parse(sub.ID)
	if err != nil {
		return nil, err
	}
	return api.DeleteWebhook200JSONResponse{Id: id, Status: api.WebhookDeleteResponseStatusDeactivated}, nil
}

// webhookSubscription is the API's view of a subscription: the secret only as the signed flag.
func webhookSubscription(sub store.WebhookSubscription) (api.WebhookSubscription, error) {
	id, err := uuid.Parse(sub.ID)
	if err != nil {
		return api.WebhookSubscription{}, err
	}
	events := make([]api.WebhookEventType, len(sub.Events))
	for i, e := range sub.Events {
		events[i] = api.WebhookEventType(e)
	}
	out := api.WebhookSubscription{
		Id: id, CallbackUrl: sub.CallbackURL, Events: events, Status: api.WebhookSubscriptionStatus(sub.Status),
		Signed: sub.Secret != nil && *sub.Secret != "", CreatedAt: sub.CreatedAt, ExpiresAt: sub.ExpiresAt,
		FireCount: int(sub.FireCount), FailCount: int(sub.FailCount), ConsecutiveFailures: int(sub.ConsecutiveFailures),
		LastError: sub.LastError, LastDeliveryAt: sub.LastDeliveryAt,
	}
	if sub.Providers != nil {
		p := sub.Providers
		out.Providers = &p
	}
	if sub.DeactivatedReason != nil {
		r := api.WebhookSubscriptionDeactivatedReason(*sub.DeactivatedReason)
		out.DeactivatedReason = &r
	}
	if sub.Metadata != nil {
		// Already JSON: written out as stored.
		out.Metadata = sub.Metadata
	}
	return out, nil
}
