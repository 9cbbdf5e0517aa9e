/**
 * The engine's values as the wire's (src/shared/wire-types.ts). The wire owns its shapes; each
 * mapping here is typed engine → wire, so an engine change that drops or retypes a field the editor
 * reads fails the typecheck here. Where the shapes agree the value passes as it is (what travels is
 * unchanged); the checks at the end hold the other direction, for values the extension sends back.
 */
import type { LspContext } from '../engine/context/types';
import type { EnvironmentReport } from '../engine/environment';
import { ANNOTATION_LABELS, type Annotation, type AnnotationLabel, type ExportOutcome } from '../engine/store/annotations';
import type { FocalSource } from '../engine/store/checkout-map';
import type { ResultRow } from '../engine/store/result-rows';
import type { ResultRecord } from '../engine/store/results';
import type { ReleaseResultView } from '../engine/store/release-result-rows';
import type { Summary } from '../engine/report/summary';
import {
  WIRE_ANNOTATION_LABELS,
  type WireAnnotation,
  type WireAnnotationLabel,
  type WireEnvironmentReport,
  type WireExportOutcome,
  type WireFocalSource,
  type WireLspContext,
  type WireResultRecord,
  type WireResultRow,
  type WireSummary,
} from '../shared/wire-types';

export const wireEnvironment = (r: EnvironmentReport): WireEnvironmentReport => r;
export const wireSummary = (s: Summary): WireSummary => s;
export const wireResultRecord = (r: ResultRecord): WireResultRecord => r;
export const wireReleaseResult = (r: ReleaseResultView): WireResultRecord => r;
export const wireResultRows = (rows: ResultRow[]): WireResultRow[] => rows;
export const wireAnnotation = (a: Annotation): WireAnnotation => a;
export const wireFocalSource = (f: FocalSource): WireFocalSource => f;
export const wireExportOutcome = (o: ExportOutcome): WireExportOutcome => o;

/** Only the three lists: the engine's context object may carry more than the wire promises. */
export function wireLspContext(c: LspContext): WireLspContext {
  return { argumentDefinitions: c.argumentDefinitions, calleeDefinitions: c.calleeDefinitions, conditionReferences: c.conditionReferences };
}

/** A label the extension sends is one the engine's store takes, and the lists are the same. */
export const engineAnnotationLabel = (l: WireAnnotationLabel): AnnotationLabel => l;
type Same<A extends readonly unknown[], B extends readonly unknown[]> = A extends B ? (B extends A ? true : false) : false;
export const SAME_ANNOTATION_LABELS: Same<typeof ANNOTATION_LABELS, typeof WIRE_ANNOTATION_LABELS> = true;
