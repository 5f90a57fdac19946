//! Who may use the relay: a request must name this server as `127.0.0.1:<port>` or
//! `localhost:<port>` in `Host` (a rebinding host's name is refused, so another site that points
//! its own name at 127.0.0.1 reads nothing), come from this origin when it says where it comes from
//! (`Origin`, `Sec-Fetch-Site`), and, under `/relay/`, carry the run's token.

/// The token and the addresses this run answers to.
pub struct Guard {
    hosts: [String; 2],
    origins: [String; 2],
    token: String,
}

/// Why a request was refused (the answer's text; never the token).
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    Host,
    Origin,
    CrossSite,
    Token,
}

impl Refused {
    pub fn message(&self) -> &'static str {
        match self {
            Refused::Host => "refused: the Host header names another server (icescope serve answers only to 127.0.0.1 and localhost on its port)",
            Refused::Origin => "refused: the request comes from another origin than icescope serve's own",
            Refused::CrossSite => "refused: a cross-site request",
            Refused::Token => "refused: the relay needs this run's token (open the address icescope serve printed)",
        }
    }
}

impl Guard {
    pub fn new(port: u16, token: String) -> Guard {
        Guard {
            hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            origins: [format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}")],
            token,
        }
    }

    /// `header(name)` gives a request header's value (the first, if sent twice).
    pub fn check(&self, relay: bool, header: impl Fn(&str) -> Option<String>) -> Result<(), Refused> {
        let host = header("Host").ok_or(Refused::Host)?;
        if !self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host.trim())) {
            return Err(Refused::Host);
        }
        if let Some(origin) = header("Origin") {
            if !self.origins.iter().any(|o| o.eq_ignore_ascii_case(origin.trim())) {
                return Err(Refused::Origin);
            }
        }
        // Browsers say where a request comes from; `none` is a typed address or a bookmark.
        if let Some(site) = header("Sec-Fetch-Site") {
            let ok = if relay { site == "same-origin" } else { matches!(site.as_str(), "same-origin" | "none") };
            if !ok {
                return Err(Refused::CrossSite);
            }
        }
        if relay && !header(icescope::source::relay::TOKEN_HEADER).is_some_and(|t| same(t.trim().as_bytes(), self.token.as_bytes())) {
            return Err(Refused::Token);
        }
        Ok(())
    }
}

/// Equal, in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 32 bytes from the OS, as hex: the run's token.
pub fn new_token() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random bytes for the relay's token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(g: &Guard, relay: bool, headers: &[(&str, &str)]) -> Result<(), Refused> {
        g.check(relay, |n| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(n)).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn host_origin_site_and_token_are_checked() {
        let g = Guard::new(8090, "t0k".into());
        let t = icescope::source::relay::TOKEN_HEADER;
        assert_eq!(ask(&g, false, &[("Host", "127.0.0.1:8090")]), Ok(()));
        assert_eq!(ask(&g, false, &[("Host", "LOCALHOST:8090"), ("Sec-Fetch-Site", "none")]), Ok(()));
        assert_eq!(ask(&g, false, &[("Host", "evil.example:8090")]), Err(Refused::Host), "DNS rebinding");
        assert_eq!(ask(&g, false, &[("Host", "127.0.0.1:8091")]), Err(Refused::Host));
        assert_eq!(ask(&g, false, &[]), Err(Refused::Host));
        assert_eq!(ask(&g, true, &[("Host", "127.0.0.1:8090"), (t, "t0k")]), Ok(()));
        assert_eq!(ask(&g, true, &[("Host", "127.0.0.1:8090")]), Err(Refused::Token));
        assert_eq!(ask(&g, true, &[("Host", "127.0.0.1:8090"), (t, "t0K")]), Err(Refused::Token));
        assert_eq!(ask(&g, true, &[("Host", "127.0.0.1:8090"), (t, "t0k"), ("Origin", "http://evil.example")]), Err(Refused::Origin));
        assert_eq!(ask(&g, true, &[("Host", "127.0.0.1:8090"), (t, "t0k"), ("Origin", "http://localhost:8090")]), Ok(()));
        assert_eq!(ask(&g, true, &[("Host", "127.0.0.1:8090"), (t, "t0k"), ("Sec-Fetch-Site", "cross-site")]), Err(Refused::CrossSite));
        assert_eq!(ask(&g, true, &[("Host", "127.0.0.1:8090"), (t, "t0k"), ("Sec-Fetch-Site", "none")]), Err(Refused::CrossSite));
        assert_eq!(new_token().unwrap().len(), 64);
        assert_ne!(new_token().unwrap(), new_token().unwrap());
    }
}
