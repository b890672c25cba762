// Package service holds Sparrow's business rules, written once above storage
// for every backend: validation, OAuth, visibility (docs/seeds.md#seed-002's RouteService
// policies), and the construction of outbox events. It depends only on the
// domain interfaces; package app wires concrete stores, caches and buses in.
package service
