import type { ContextModeSpec } from './types';

/** The focal function alone: no context block. */
export const standardMode: ContextModeSpec<'standard'> = {
  id: 'standard',
  label: 'Standard (the function alone)',
  needs: () => [],
  gather: async () => ({}),
  render: () => '',
};
