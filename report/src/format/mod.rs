//! Renderers that know no report kind: the HTML page and its escaping,
//! JUnit suites, markdown pieces, plots, JSON documents, and how a user's
//! text is shown with nothing hidden. Each report kind fills them
//! (`sim/`, `hil/`).

pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod plot;
pub mod visible;
