/**
 * The product-category taxonomy: what `categories` filters and organization
 * categories use. Two levels: a sector and its categories. Slugs are stable API.
 */
export interface Category {
  slug: string;
  name: string;
  sector: string;
}

const SECTORS: Record<string, Record<string, string>> = {
  software: {
    "developer-tools": "Developer tools",
    "data-infrastructure": "Data infrastructure",
    "cloud-infrastructure": "Cloud infrastructure",
    cybersecurity: "Cybersecurity",
    "artificial-intelligence": "Artificial intelligence",
    "sales-and-marketing-software": "Sales and marketing software",
    "hr-and-recruiting-software": "HR and recruiting software",
    "productivity-and-collaboration": "Productivity and collaboration",
    "erp-and-operations-software": "ERP and operations software",
  },
  finance: {
    payments: "Payments",
    lending: "Lending",
    banking: "Banking",
    insurance: "Insurance",
    "accounting-and-tax": "Accounting and tax",
    "wealth-and-investing": "Wealth and investing",
    "crypto-and-blockchain": "Crypto and blockchain",
  },
  health: {
    "digital-health": "Digital health",
    "medical-devices": "Medical devices",
    biotechnology: "Biotechnology",
    pharmaceuticals: "Pharmaceuticals",
    "healthcare-services": "Healthcare services",
  },
  industry: {
    "industrial-automation": "Industrial automation",
    robotics: "Robotics",
    manufacturing: "Manufacturing",
    "construction-tech": "Construction technology",
    "energy-and-cleantech": "Energy and cleantech",
    "agriculture-and-food-tech": "Agriculture and food technology",
    "logistics-and-supply-chain": "Logistics and supply chain",
    mobility: "Mobility and transportation",
    aerospace: "Aerospace and space",
    semiconductors: "Semiconductors and hardware",
  },
  consumer: {
    "e-commerce": "E-commerce",
    "retail-tech": "Retail technology",
    "consumer-apps": "Consumer apps",
    "media-and-entertainment": "Media and entertainment",
    gaming: "Gaming",
    "travel-and-hospitality": "Travel and hospitality",
    "real-estate-and-proptech": "Real estate and proptech",
    "food-and-beverage": "Food and beverage",
  },
  services: {
    education: "Education",
    "legal-tech": "Legal technology",
    "government-and-civic-tech": "Government and civic technology",
    "professional-services": "Professional services",
    telecommunications: "Telecommunications",
    marketplaces: "Marketplaces",
  },
};

export const CATEGORIES: readonly Category[] = Object.entries(SECTORS).flatMap(([sector, entries]) =>
  Object.entries(entries).map(([slug, name]) => ({ slug, name, sector })),
);

const BY_SLUG = new Map(CATEGORIES.map((c) => [c.slug, c]));

export const isCategorySlug = (slug: string) => BY_SLUG.has(slug);
export const categoryName = (slug: string) => BY_SLUG.get(slug)?.name ?? slug;
