//! Topology builders that expand a compact description into nodes and links.

pub mod dumbbell;
