// Package service holds Sparrow's business rules, written once above storage
// for every backend: validation, OAuth, visibility (seed 002's RouteService
// policies), and the construction of outbox events. It depends only on the
// domain interfaces; cmd/sparrow wires concrete stores, caches and buses in.
package service
