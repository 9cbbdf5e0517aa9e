#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_compare() {
        assert_ne!(TriangleKind::Right, TriangleKind::Scalene);
    }
}
