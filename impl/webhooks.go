package impl

import (
	"cmp"
	"context"
	"errors"
	"math"
	"net/url"

	"github.com/google/uuid"

	"github.com/switchboard/switchboard/errs"
	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/store"
	"github.com/switchboard/switchboard/webhooks"
)

// webhookURL is the verify_url (GET) of a subscription; with the token it is the manage_url (DELETE).
func (s *Server) webhookURL(id string) string { return s.deps.BaseURL + "/api/v1/webhooks?id=" + id }

// webhookClient names the caller for the creation quota: the address the server resolved (the connection's, or
// the trusted proxies' X-Forwarded-For; IPv6 per /64), as clientOf does for the paid route.
func webhookClient(ctx context.Context) string { return cmp.Or(clientOf(ctx), "unknown") }

const noSuchWebhook = "parameter id: no webhook subscription with this id"

// CreateWebhook subscribes a callback URL to status events.
func (s *Server) CreateWebhook(ctx context.Context, req api.CreateWebhookRequestObject) (api.CreateWebhookResponseObject, error) {
	b := req.Body
	events := make([]string, len(b.Events))
	for i, e := range b.Events {
		events[i] = string(e)
	}
	created, err := s.webhooks.Create(ctx, webhooks.CreateInput{
		CallbackURL: b.CallbackUrl, Events: events, Providers: b.Providers, Secret: b.Secret,
		ExpiresInHours: b.ExpiresInHours, Metadata: b.Metadata, Client: webhookClient(ctx),
	})
	var inErr *errs.InputError
	var unknown *errs.UnknownProviderError
	var limit *webhooks.LimitError
	switch {
	case errors.As(err, &inErr):
		return api.CreateWebhook400JSONResponse{BadRequestJSONResponse: api.BadRequestJSONResponse{Error: inErr.Msg}}, nil
	case errors.As(err, &unknown):
		return api.CreateWebhook404JSONResponse{NotFoundJSONResponse: api.NotFoundJSONResponse{Error: "body field providers: " + unknown.Error()}}, nil
	case errors.As(err, &limit) && limit.RetryAfter > 0:
		secs := int(math.Ceil(limit.RetryAfter.Seconds()))
		return api.CreateWebhook429JSONResponse{Body: api.Error{Error: limit.Msg}, Headers: api.CreateWebhook429ResponseHeaders{RetryAfter: &secs}}, nil
	case errors.As(err, &limit):
		return api.CreateWebhook409JSONResponse{Error: limit.Msg}, nil
	case err != nil:
		return nil, err
	}
	sub := created.Subscription
	out, err := webhookSubscription(sub)
	if err != nil {
		return nil, err
	}
	u := s.webhookURL(sub.ID)
	return api.CreateWebhook200JSONResponse{Subscription: out, VerifyUrl: u,
		ManageUrl: u + "&token=" + url.QueryEscape(created.ManageToken), ManageToken: created.ManageToken}, nil
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
	sub, err := s.webhooks.Unsubscribe(ctx, req.Params.Id.String(), req.Params.Token)
	if errors.Is(err, webhooks.ErrNotFound) {
		return api.DeleteWebhook404JSONResponse{NotFoundJSONResponse: api.NotFoundJSONResponse{Error: noSuchWebhook}}, nil
	}
	if errors.Is(err, webhooks.ErrBadToken) {
		return api.DeleteWebhook403JSONResponse{Error: "parameter token: not the manage_token of this subscription"}, nil
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
		Signed: sub.Secret != nil && *sub.Secret != "", Verified: sub.VerifiedAt != nil, CreatedAt: sub.CreatedAt, ExpiresAt: sub.ExpiresAt,
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
